package testservers

import (
	"os/exec"
	"syscall"
)

// setDeathSignal has the kernel kill the server when the test process dies (a test binary killed
// by its timeout never reaches StopAll).
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
