package depot

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// UnverifiableError: an answer came, but it is not provably depot's answer to this request (no or a
// bad signature, a digest that does not match the body, an unknown key, a stale or replayed answer,
// an answer about another license, product, machine or platform, a body that is not JSON), or a
// download or license file failed its check. Never trust what such an answer says.
type UnverifiableError struct {
	// Reason says which check failed.
	Reason string
	// Status is the HTTP status of the answer, 0 when there was none (a license file, a download's name).
	Status int
	// Err is a cause to match with errors.Is, or nil: ErrExpired for a license file past its exp.
	Err error
}

func (e *UnverifiableError) Error() string { return "depot: unverifiable: " + e.Reason }

// Unwrap returns the cause, if any.
func (e *UnverifiableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnverifiable) true.
func (e *UnverifiableError) Is(target error) bool { return target == ErrUnverifiable }

// UnreachableError: no answer from depot (DNS, a refused connection, TLS, a timeout, a 5xx after the
// retries, the context cancelled). Err is the last cause: errors.Is(err,
// context.Canceled) or context.DeadlineExceeded tell a cancelled call.
type UnreachableError struct {
	Reason string
	// Status is the HTTP status of the last answer (a 5xx), 0 when none came.
	Status int
	Err    error
}

func (e *UnreachableError) Error() string { return "depot: unreachable: " + e.Reason }

// Unwrap returns the last cause (a net error, a context error), if any.
func (e *UnreachableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnreachable) true.
func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// RefusedError: depot answered, with a verified signature, that it will not do what was asked: a
// machine or update call refused with a code (TOO_MANY_MACHINES, HEARTBEAT_DEAD, MACHINE_FILE_VALID,
// …), or a refusal without one (400 and 422 INVALID, 401 UNAUTHENTICATED, 403 FORBIDDEN, 404
// NOT_FOUND, 429 TOO_MANY_REQUESTS, else HTTP_<status>). It matches the sentinel of its code with
// errors.Is: errors.Is(err, depot.ErrTooManyMachines).
type RefusedError struct {
	Code    string
	Message string
	// Status is the HTTP status of the refusal.
	Status int
	// RetryAfter is the server's Retry-After (TOO_MANY_ACTIVATIONS), 0 when it sent none.
	RetryAfter time.Duration
	// Errors are the server's per-field messages of a 422 (INVALID), nil otherwise.
	Errors map[string][]string
	// FileExpiresAt is when the license file that holds the machine's seat expires
	// (MACHINE_FILE_VALID: the machine cannot be deactivated before), zero otherwise.
	FileExpiresAt time.Time
}

func (e *RefusedError) Error() string {
	text := fmt.Sprintf("depot: refused (%d %s)", e.Status, e.Code)
	if e.Message != "" {
		text += ": " + e.Message
	}
	if len(e.Errors) > 0 {
		fields := make([]string, 0, len(e.Errors))
		for field := range e.Errors {
			fields = append(fields, field)
		}
		sort.Strings(fields)
		var parts []string
		for _, field := range fields {
			parts = append(parts, field+": "+strings.Join(e.Errors[field], " "))
		}
		text += " (" + strings.Join(parts, "; ") + ")"
	}
	if e.RetryAfter > 0 {
		text += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	if !e.FileExpiresAt.IsZero() {
		text += " (its license file expires at " + e.FileExpiresAt.Format(time.RFC3339) + ")"
	}
	return text
}

// Is makes errors.Is(err, depot.ErrX) true for the sentinel of the refusal's code, and for ErrRefused.
func (e *RefusedError) Is(target error) bool {
	if target == ErrRefused {
		return true
	}
	code, ok := target.(refusalCode)
	return ok && string(code) == e.Code
}

// refusalCode is the type of the sentinels a RefusedError matches by its code.
type refusalCode string

func (c refusalCode) Error() string { return "depot: refused: " + string(c) }

// kind is the type of the sentinels that name an outcome (unverifiable, unreachable, refused).
type kind string

func (k kind) Error() string { return "depot: " + string(k) }

// Outcomes, for errors.Is: every *UnverifiableError is ErrUnverifiable, and so on.
var (
	ErrUnverifiable error = kind("unverifiable")
	ErrUnreachable  error = kind("unreachable")
	ErrRefused      error = kind("refused")
)

// Refusal codes, for errors.Is on a *RefusedError. ErrExpired is also the cause of an
// *UnverifiableError about a license file past its exp.
var (
	ErrTooManyMachines    error = refusalCode(CodeTooManyMachines)
	ErrTooManyActivations error = refusalCode(CodeTooManyActivations)
	ErrHeartbeatDead      error = refusalCode(CodeHeartbeatDead)
	ErrRevoked            error = refusalCode(CodeRevoked)
	ErrExpired            error = refusalCode(CodeExpired)
	ErrNotFound           error = refusalCode(CodeNotFound)
	ErrUnauthenticated    error = refusalCode(CodeUnauthenticated)
	ErrForbidden          error = refusalCode(CodeForbidden)
	ErrInvalid            error = refusalCode(CodeInvalid)
	ErrMachineFileValid   error = refusalCode(CodeMachineFileValid)
	ErrProductMismatch    error = refusalCode(CodeProductMismatch)
	ErrTooManyRequests    error = refusalCode(CodeTooManyRequests)
)

// Codes: a Validation's (VALID … TOO_MANY_IPS; an unknown one is kept as depot sent it), a
// RefusedError's (TOO_MANY_MACHINES …, and INVALID, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND,
// TOO_MANY_REQUESTS for a refusal without a code, else HTTP_<status>), and a Status's when depot
// could not vouch (UNREACHABLE, UNVERIFIABLE).
const (
	CodeValid               = "VALID"
	CodeNotFound            = "NOT_FOUND"
	CodeRevoked             = "REVOKED"
	CodeExpired             = "EXPIRED"
	CodeProductMismatch     = "PRODUCT_MISMATCH"
	CodeFingerprintRequired = "FINGERPRINT_REQUIRED"
	CodeNotActivated        = "NOT_ACTIVATED"
	CodeHeartbeatDead       = "HEARTBEAT_DEAD"
	CodeTooManyIPs          = "TOO_MANY_IPS"

	CodeTooManyMachines    = "TOO_MANY_MACHINES"
	CodeTooManyActivations = "TOO_MANY_ACTIVATIONS"
	CodeMachineFileValid   = "MACHINE_FILE_VALID"
	CodeUnauthenticated    = "UNAUTHENTICATED"
	CodeForbidden          = "FORBIDDEN"
	CodeInvalid            = "INVALID"
	CodeTooManyRequests    = "TOO_MANY_REQUESTS"

	CodeUnreachable  = "UNREACHABLE"
	CodeUnverifiable = "UNVERIFIABLE"
)

// codeOfStatus is the code of a refusal whose body names none.
func codeOfStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return CodeInvalid
	case http.StatusUnauthorized:
		return CodeUnauthenticated
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusTooManyRequests:
		return CodeTooManyRequests
	default:
		return fmt.Sprintf("HTTP_%d", status)
	}
}

func unverifiable(status int, format string, args ...any) *UnverifiableError {
	return &UnverifiableError{Reason: fmt.Sprintf(format, args...), Status: status}
}
