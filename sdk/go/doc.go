// Package depot is the app side of depot (https://github.com/depothq/depot): it checks the app's
// license key, activates the machine it runs on, keeps working offline, and finds and downloads its
// updates. Every answer it returns has been verified as depot's: an RFC 9421 Ed25519 signature by a
// key the app ships with (a pinned JWKS), an RFC 9530 digest of the exact body bytes, the fresh
// nonce it sent, and the license, product, machine or platform it asked about.
//
// Three outcomes are never folded into one boolean: a verified result (a *Validation whose Valid
// may be false), an *UnverifiableError (an answer that is not provably depot's: never trust it),
// and an *UnreachableError (no answer). Refusals of machine and update calls are *RefusedError,
// matched by code with errors.Is (ErrTooManyMachines, ErrHeartbeatDead, …).
//
//	client, err := depot.New(depot.Config{Server: "https://licenses.example.com", ProductID: "1", JWKS: jwks})
//	validation, err := client.Validate(ctx, key, nil)
//
// It speaks depot's HTTP API as of depot 0.1 (/api/v1, the signed upgrade check), standard library
// only, Go 1.19 or later.
package depot
