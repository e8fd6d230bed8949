"""The README's walk through the Python client a customer generates from the served document
(openapi-python-client). test/integration/clients/ generates the package edge_events_client, puts it on
PYTHONPATH and runs this in two phases:
  create <url> <token> <name>: a file destination and a subscription to it; prints their ids;
  check <url> <token> <destination id>: once traffic was produced, the destination's status ok and the
  events in its file, an error's error_code, a 404; prints what it saw;
  vendors <url> <token> <ingestion uri>: a datadog and an azure_logs_ingestion destination (unchecked),
  read back with their secrets null; prints their kinds.
"""

import json
import sys
import time

from edge_events_client import AuthenticatedClient
from edge_events_client.api.event_destinations import create_event_destination, get_event_destination
from edge_events_client.api.event_subscriptions import create_event_subscription
from edge_events_client.models import (
    AzureLogsIngestionTarget,
    DatadogTarget,
    DestinationTarget,
    ErrorBody,
    EventDestination,
    EventDestinationCreate,
    EventSubscription,
    EventSubscriptionCreate,
    FileTarget,
    TcpConnectionClosedSource,
    TcpConnectionClosedSourceFieldsItem,
    TcpConnectionClosedSourceType,
)
from edge_events_client.types import UNSET

UNKNOWN_DESTINATION = "ed_00000000000000000000000000"


def expect(response, model):
    if not isinstance(response.parsed, model):
        raise SystemExit(f"{model.__name__} expected, got {response.status_code}: {response.content!r}")
    return response.parsed


def create(client, name):
    body = EventDestinationCreate(description=name, target=DestinationTarget(file=FileTarget(path=f"clients/{name}.ndjson")))
    dest = expect(create_event_destination.sync_detailed(client=client, body=body), EventDestination)
    source = TcpConnectionClosedSource(
        type_=TcpConnectionClosedSourceType("tcp_connection_closed.v0"),
        fields=[TcpConnectionClosedSourceFieldsItem(f) for f in ("conn.client_ip", "conn.server_name", "conn.bytes_in")],
        filter_='ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)',
    )
    sub = expect(
        create_event_subscription.sync_detailed(client=client, body=EventSubscriptionCreate(description="TLS from 10/8", destination_ids=[dest.id], sources=[source])),
        EventSubscription,
    )
    print(json.dumps({"destination": dest.id, "subscription": sub.id}))


def check(client, destination):
    deadline = time.monotonic() + 60
    state, path = "unknown", ""
    while time.monotonic() < deadline:
        dest = expect(get_event_destination.sync_detailed(client=client, id=destination), EventDestination)
        state = dest.status.state.value
        path = dest.target.file.resolved_path if dest.target.file is not UNSET else ""
        if state == "ok":
            break
        time.sleep(0.25)
    events = 0
    if path:
        with open(path, encoding="utf-8") as f:
            events = sum(1 for line in f if line.strip())
    # A subscription to a destination that does not exist: a 400 whose body names the rule.
    refused = create_event_subscription.sync_detailed(client=client, body=EventSubscriptionCreate(destination_ids=[UNKNOWN_DESTINATION]))
    # A destination that does not exist: a 404, parsed as the error body too.
    missing = get_event_destination.sync_detailed(client=client, id=UNKNOWN_DESTINATION)
    code = lambda r: r.parsed.error_code.value if isinstance(r.parsed, ErrorBody) else None
    print(json.dumps({"state": state, "events": events, "refused": [refused.status_code, code(refused)], "missing": [missing.status_code, code(missing)]}))


def vendors(client, ingestion_uri):
    targets = {
        "datadog": DestinationTarget(datadog=DatadogTarget(api_key="0123456789abcdef0123456789abcdef", service="edge-python", ddtags="env:clients")),
        "azure_logs_ingestion": DestinationTarget(
            azure_logs_ingestion=AzureLogsIngestionTarget(
                tenant_id="72f988bf-86f1-41af-91ab-2d7cd011db47",
                client_id="00000000-1111-2222-3333-444444444444",
                client_secret="Abc8Q~python-secret",
                logs_ingestion_uri=ingestion_uri,
                data_collection_rule_id="dcr-0123456789abcdef0123456789abcdef",
                data_collection_stream_name="Custom-EdgeEvents",
            )
        ),
    }
    seen = {}
    for kind, target in targets.items():
        dest = expect(create_event_destination.sync_detailed(client=client, body=EventDestinationCreate(description=f"python {kind}", target=target, verify=False)), EventDestination)
        got = expect(get_event_destination.sync_detailed(client=client, id=dest.id), EventDestination)
        view = got.target.datadog if kind == "datadog" else got.target.azure_logs_ingestion
        secret = view.api_key if kind == "datadog" else view.client_secret
        seen[kind] = {"id": dest.id, "secret": secret, "named": view.service if kind == "datadog" else view.data_collection_stream_name}
    print(json.dumps(seen))


def main():
    phase, url, token, arg = sys.argv[1:5]
    client = AuthenticatedClient(base_url=url, token=token, raise_on_unexpected_status=True)
    {"create": create, "check": check, "vendors": vendors}[phase](client, arg)


if __name__ == "__main__":
    main()
