// A small program on the Go client a customer generates from the served document (OpenAPI Generator,
// -g go): it creates a file destination and a subscription to it, then a datadog and an
// azure_logs_ingestion destination (unchecked), and prints their ids as JSON.
// test/integration/clients/ builds it against the generated package (module github.com/edge-events/go-client).
//
//	walk <url> <token> <name> <azure logs ingestion uri>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	edgeevents "github.com/edge-events/go-client"
)

func main() {
	url, token, name, ingestionURI := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	cfg := edgeevents.NewConfiguration()
	cfg.Servers = edgeevents.ServerConfigurations{{URL: url}}
	cfg.AddDefaultHeader("Authorization", "Bearer "+token)
	api := edgeevents.NewAPIClient(cfg)
	ctx := context.Background()

	target := edgeevents.NewDestinationTarget()
	target.SetFile(*edgeevents.NewFileTarget("clients/" + name + ".ndjson"))
	create := edgeevents.NewEventDestinationCreate(*target)
	create.SetDescription(name)
	dest, _, err := api.EventDestinationsAPI.CreateEventDestination(ctx).EventDestinationCreate(*create).Execute()
	exitOn("createEventDestination", err)

	source := edgeevents.NewTcpConnectionClosedSource("tcp_connection_closed.v0", []string{"conn.client_ip", "conn.server_name", "conn.bytes_in"})
	source.SetFilter(`ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)`)
	sub := edgeevents.NewEventSubscriptionCreate()
	sub.SetDestinationIds([]string{dest.GetId()})
	sub.SetSources([]edgeevents.EventSourceCreate{edgeevents.TcpConnectionClosedSourceAsEventSourceCreate(source)})
	created, _, err := api.EventSubscriptionsAPI.CreateEventSubscription(ctx).EventSubscriptionCreate(*sub).Execute()
	exitOn("createEventSubscription", err)

	dd := edgeevents.NewDatadogTarget("0123456789abcdef0123456789abcdef")
	dd.SetService("edge-go")
	ddTarget := edgeevents.NewDestinationTarget()
	ddTarget.SetDatadog(*dd)
	ddCreate := edgeevents.NewEventDestinationCreate(*ddTarget)
	ddCreate.SetVerify(false)
	ddDest, _, err := api.EventDestinationsAPI.CreateEventDestination(ctx).EventDestinationCreate(*ddCreate).Execute()
	exitOn("createEventDestination datadog", err)

	az := edgeevents.NewAzureLogsIngestionTarget("72f988bf-86f1-41af-91ab-2d7cd011db47", "00000000-1111-2222-3333-444444444444", "Abc8Q~go-secret",
		ingestionURI, "dcr-0123456789abcdef0123456789abcdef", "Custom-EdgeEvents")
	azTarget := edgeevents.NewDestinationTarget()
	azTarget.SetAzureLogsIngestion(*az)
	azCreate := edgeevents.NewEventDestinationCreate(*azTarget)
	azCreate.SetVerify(false)
	azDest, _, err := api.EventDestinationsAPI.CreateEventDestination(ctx).EventDestinationCreate(*azCreate).Execute()
	exitOn("createEventDestination azure_logs_ingestion", err)

	out, _ := json.Marshal(map[string]string{"destination": dest.GetId(), "subscription": created.GetId(), "datadog": ddDest.GetId(), "azure_logs_ingestion": azDest.GetId()})
	fmt.Println(string(out))
}

// exitOn ends the program with the API's answer when a call failed.
func exitOn(what string, err error) {
	if err == nil {
		return
	}
	body := ""
	if apiErr, ok := err.(*edgeevents.GenericOpenAPIError); ok {
		body = string(apiErr.Body())
	}
	fmt.Fprintf(os.Stderr, "%s: %v %s\n", what, err, body)
	os.Exit(1)
}
