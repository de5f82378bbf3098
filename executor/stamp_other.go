//go:build !linux

package executor

import "net"

// recvState is empty where the kernel gives no receive timestamps.
type recvState struct{}

// wrapStamps leaves the connection as it is: reads are stamped when they
// complete.
func wrapStamps(c net.Conn) net.Conn { return c }

// startStamping does nothing here.
func startStamping() {}
