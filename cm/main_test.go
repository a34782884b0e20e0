package cm

import (
	"os"
	"testing"

	"github.com/phs-go/phs/internal/atomicfile"
)

// TestMain runs the tests without flushing their checkpoints to disk: they
// write thousands, and no test here checks what a crash of the machine
// would leave.
func TestMain(m *testing.M) {
	atomicfile.SkipSyncForTests()
	os.Exit(m.Run())
}
