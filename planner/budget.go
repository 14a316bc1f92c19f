package planner

import (
	"errors"
	"fmt"

	"github.com/lancecat/lancecat/catalog"
)

// ErrValueTooLarge is MySQL's ER_WARN_ALLOWED_PACKET_OVERFLOWED (1301): a
// value the statement would build exceeds Options.MaxValueBytes. MySQL
// answers NULL with a warning; lancecat has no warnings and fails the
// statement (CodeInvalidInput) rather than return a wrong NULL.
var ErrValueTooLarge = errors.New("result larger than max_allowed_packet (MySQL error 1301, ER_WARN_ALLOWED_PACKET_OVERFLOWED)")

// maxValueBytes is the statement's bound on one built value.
func (env *rowEnv) maxValueBytes() int64 {
	if env.session != nil && env.session.opts.MaxValueBytes > 0 {
		return env.session.opts.MaxValueBytes
	}
	return DefaultMaxValueBytes
}

// chargeValue checks, before a value of n bytes is built by what (a
// function name, "CONCAT"), that it fits the statement's value budget.
func (env *rowEnv) chargeValue(n int64, what string) error {
	if limit := env.maxValueBytes(); n > limit || n < 0 {
		return &catalog.Error{Code: catalog.CodeInvalidInput,
			Message: fmt.Sprintf("result of %s() would be %d bytes, larger than the statement's value budget of %d bytes (planner.Options.MaxValueBytes)", what, n, limit),
			Cause:   ErrValueTooLarge}
	}
	return nil
}
