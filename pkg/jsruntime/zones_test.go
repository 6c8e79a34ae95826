package jsruntime

import "testing"

// zoneAt answers what the system's time zone database says, and nothing for names that are no
// zone: the host's own "Local", paths, and characters no IANA name has.
func TestZoneAtAnswersKnownZonesOnly(t *testing.T) {
	for _, c := range []struct {
		zone string
		ms   int64
		want string
	}{
		{"America/New_York", 1704460029000, "-18000 EST"},
		{"America/New_York", 1720184829000, "-14400 EDT"},
		{"Asia/Kolkata", 0, "19800 IST"},
		{"Etc/GMT+5", 0, "-18000 -05"},
	} {
		if got, ok := zoneAt(c.zone, c.ms); !ok || got != c.want {
			t.Errorf("zoneAt(%q, %d) = %q, %v; want %q", c.zone, c.ms, got, ok, c.want)
		}
	}
	for _, zone := range []string{"Local", "Mars/Base", "/etc/passwd", "../../etc/passwd", "America/New York", "America\\New_York", "a/b\x00"} {
		if got, ok := zoneAt(zone, 0); ok {
			t.Errorf("zoneAt(%q) = %q, want no zone", zone, got)
		}
	}
}
