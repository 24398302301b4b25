package main

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/botgw/botgw/cmd/botgw/gateway"
)

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlags("serve", stderr)
	listenAddr := f.fs.String("listen", "", "listen address, overriding the config (e.g. 0.0.0.0:8080 in a container)")
	if _, err := f.parse(args); err != nil {
		return err
	}
	cfg, err := f.load()
	if err != nil {
		return err
	}
	if *listenAddr != "" {
		cfg.Listen = *listenAddr
	}
	log := gateway.NewLogger(cfg.Log, stderr)
	stopProfiles, err := gateway.StartProfiles()
	defer stopProfiles()
	if err != nil {
		return err
	}
	return gateway.Serve(ctx, cfg, log, func(addr net.Addr) {
		fmt.Fprintf(stdout, "botgw is running. Provider: %s\n", gateway.DescribeProvider(cfg.Provider))
		if why := gateway.WebOff(cfg); why != "" {
			fmt.Fprintln(stdout, why)
		} else if cfg.Channels.Web != nil {
			fmt.Fprintf(stdout, "Open http://%s/ to chat.\n", addr)
		}
	})
}
