// Finds free TCP ports on 127.0.0.1 by letting the kernel pick them (binding port 0).
import { createServer, type Server } from 'node:net';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Returns `count` distinct free ports. All are held open together before any is released, so the
 * kernel cannot hand the same port out twice; another process may still take one before the
 * caller binds it, which the caller reports as a busy port.
 */
export async function findFreePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listen(0));
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('A TCP server reported no port.');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map(close));
  }
}

/** True when nothing listens on 127.0.0.1:port right now. */
export async function isPortFree(port: number): Promise<boolean> {
  try {
    await close(await listen(port));
    return true;
  } catch {
    return false;
  }
}
