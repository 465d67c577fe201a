// One binary for what the real-Argo CD test runs: Argo CD's application controller and repo
// server (its own commands, unchanged) and a Redis-compatible server (miniredis) for their cache.
// The first argument picks the program, as argv[0] does for Argo CD's release binary; building
// only these two commands keeps the API server, UI and CLI out of the first build.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alicebob/miniredis/v2"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: argocd-test application-controller|repo-server|redis [flags]")
		os.Exit(2)
	}
	program, args := os.Args[1], os.Args[2:]
	// As Argo CD's own main does: klog (client-go's logger) through Argo CD's logger. (Its main also
	// turns off gRPC's DNS SRV lookups, which only gRPC's grpclb balancer turns on; these two
	// commands do not link it, so they are off already.)
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))

	var command *cobra.Command
	switch program {
	case "application-controller":
		command = appcontroller.NewCommand()
	case "repo-server":
		command = reposerver.NewCommand()
	case "redis":
		redis(args)
		return
	default:
		fmt.Fprintf(os.Stderr, "unknown program %q\n", program)
		os.Exit(2)
	}
	command.SetArgs(args)
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}

// redis serves the Redis protocol on the address given (e.g. 127.0.0.1:6379) until SIGTERM/SIGINT.
func redis(args []string) {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: argocd-test redis HOST:PORT")
		os.Exit(2)
	}
	server := miniredis.NewMiniRedis()
	if err := server.StartAddr(args[0]); err != nil {
		fmt.Fprintf(os.Stderr, "redis: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("redis listening on %s\n", server.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	server.Close()
}
