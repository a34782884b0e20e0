// Command scrambles trains a network of the Rubik's cube or of the
// sliding-tile puzzle without search, on random scrambles read backwards,
// into a network directory (-out) or a run directory that goes on across
// sessions (-dir, -resume); see package
// github.com/phs-go/phs/lab/internal/scrambles for its flags.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/phs-go/phs/lab/internal/scrambles"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := scrambles.Run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scrambles:", err)
		os.Exit(1)
	}
}
