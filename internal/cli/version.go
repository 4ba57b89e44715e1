package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "version",
		Short:             "Print the version of switchboard and of Go it was built with",
		Args:              exactArgs(),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(_ *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.env.Stdout, "switchboard %s %s %s/%s\n",
				a.env.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		}),
	}
}
