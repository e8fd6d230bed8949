// Records the projection tests share: an http request with only its required fields, to which a test adds
// what it projects.
export const MINIMAL_HTTP_RECORD = {
  conn: { client_ip: '203.0.113.7', server_ip: '198.51.100.1', server_name: 'api.example.com', server_port: 443, start_ts: '2024-05-01T12:00:00.000001Z' },
  http: {
    request: { method: 'get', url: { raw: 'https://api.example.com/', scheme: 'https', host: 'api.example.com', path: '/' } },
    response: { status_code: 200 },
  },
};
