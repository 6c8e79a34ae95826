//go:build !linux

package engine

import "errors"

var pageBytes = 4096

// reserveRegion is not available here: memories grow by copying.
func reserveRegion(uint64) ([]byte, error) {
	return nil, errors.New("no address-space reservation on this platform")
}

func discardRegion(b []byte) { clear(b) }

func releaseRegion([]byte) {}

// touchedRuns cannot tell which pages hold data here (no memory is mapped: see reserveRegion).
func touchedRuns([]byte, func(lo, hi int)) bool { return false }
