// The Go conformance driver (sdk/README.md, "The conformance suite"): activates the fingerprint
// when given, validates, checks for an update when a current version is given, and prints one JSON
// line. Exit 0 valid and verified, 1 verified but not valid (a refusal too), 2 unverifiable,
// 3 unreachable, 64 usage.
//
//	go-driver --server URL --jwks FILE --product ID --key KEY [--fingerprint FP]
//	          [--current-version V --platform P --arch A]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	depot "github.com/depothq/depot/sdk/go"
)

type machine struct {
	ID string `json:"id"`
}

type upgrade struct {
	// Version is the newer version's number, null when there is none.
	Version *string `json:"version"`
}

type result struct {
	Valid    bool     `json:"valid"`
	Code     string   `json:"code"`
	Verified bool     `json:"verified"`
	Machine  *machine `json:"machine,omitempty"`
	Upgrade  *upgrade `json:"upgrade,omitempty"`
}

type failure struct {
	Verified bool   `json:"verified"`
	Error    string `json:"error"`
	Reason   string `json:"reason"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("go-driver", flag.ContinueOnError)
	flags.SetOutput(stderr)
	server := flags.String("server", "", "depot's base URL")
	jwks := flags.String("jwks", "", "the pinned JWKS file")
	product := flags.String("product", "", "the product id")
	key := flags.String("key", "", "the license key")
	fingerprint := flags.String("fingerprint", "", "activate this fingerprint first, and validate with it")
	current := flags.String("current-version", "", "check for an update from this version")
	platform := flags.String("platform", "", "the update check's platform")
	arch := flags.String("arch", "", "the update check's arch")
	if err := flags.Parse(args); err != nil {
		return 64
	}
	if flags.NArg() > 0 || *server == "" || *jwks == "" || *product == "" || *key == "" {
		fmt.Fprintln(stderr, "usage: go-driver --server URL --jwks FILE --product ID --key KEY [--fingerprint FP] [--current-version V --platform P --arch A]")
		return 64
	}
	client, err := depot.New(depot.Config{Server: *server, ProductID: *product, JWKSFile: *jwks})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 64
	}
	ctx := context.Background()
	out := result{Verified: true}

	if *fingerprint != "" {
		activation, err := client.Activate(ctx, *key, *fingerprint, &depot.MachineDetails{Name: "conformance"})
		if err != nil {
			return fail(stdout, err)
		}
		out.Machine = &machine{ID: activation.Machine.ID}
	}
	validation, err := client.Validate(ctx, *key, &depot.ValidateOptions{Fingerprint: *fingerprint})
	if err != nil {
		return fail(stdout, err)
	}
	out.Valid, out.Code = validation.Valid, validation.Code
	if validation.Machine != nil {
		out.Machine = &machine{ID: validation.Machine.ID}
	}
	if validation.Valid && *current != "" {
		answer, err := client.CheckForUpdate(ctx, *key, *current, &depot.UpdateOptions{Platform: *platform, Arch: *arch})
		if err != nil {
			return fail(stdout, err)
		}
		out.Upgrade = &upgrade{}
		if answer.Version != nil {
			out.Upgrade.Version = &answer.Version.VersionNumber
		}
	}
	print(stdout, out)
	if !out.Valid {
		return 1
	}
	return 0
}

// fail prints an error's line: a refusal is verified but not valid (1); unverifiable 2; unreachable 3.
func fail(stdout io.Writer, err error) int {
	var refused *depot.RefusedError
	switch {
	case errors.As(err, &refused):
		print(stdout, result{Code: refused.Code, Verified: true})
		return 1
	case errors.Is(err, depot.ErrUnverifiable):
		print(stdout, failure{Error: "unverifiable", Reason: err.Error()})
		return 2
	case errors.Is(err, depot.ErrUnreachable):
		print(stdout, failure{Error: "unreachable", Reason: err.Error()})
		return 3
	default:
		print(stdout, failure{Error: "unreachable", Reason: err.Error()})
		return 3
	}
}

func print(stdout io.Writer, value any) {
	encoder := json.NewEncoder(stdout)
	encoder.SetEscapeHTML(false)
	_ = encoder.Encode(value)
}
