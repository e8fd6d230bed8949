// A small program on the Go client a customer generates from the served document (OpenAPI Generator,
// -g go): it creates a file destination and a subscription to it, and prints their ids as JSON.
// test/integration/clients/ builds it against the generated package (module github.com/edge-events/go-client).
//
//	walk <url> <token> <name>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	edgeevents "github.com/edge-events/go-client"
)

func main() {
	url, token, name := os.Args[1], os.Args[2], os.Args[3]
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

	out, _ := json.Marshal(map[string]string{"destination": dest.GetId(), "subscription": created.GetId()})
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
