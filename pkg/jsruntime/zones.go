package jsruntime

import (
	"strconv"
	"sync"
	"time"
	// The time zone database is built in (about 410 KB of binary), so a host in a container without
	// /usr/share/zoneinfo formats every zone as V8 does; the system's copy is read first.
	_ "time/tzdata"
)

// Time zones for the cell's locale formatting (locale.js, docs/adr/0063-en-us-locale-and-a-small-intl.md).
// codemode's Date has only UTC, but a script that formats with {timeZone: "America/New_York"}
// expects that zone's local time, as V8 prints it. The locale script asks Go, over the bridge,
// for a zone's offset and abbreviation at an instant; Go reads the zone from the time zone
// database (time.LoadLocation: the system's, else the one built in).

// zones caches the zones loaded so far. Only names that load are kept, and at most maxZones of
// them: the database has about 600, but a case-insensitive file system (macOS) would load every
// spelling of one, which a cell could otherwise use to grow the host's memory.
var zones struct {
	sync.Mutex
	byName map[string]*time.Location
}

const maxZones = 2048

// maxZoneName bounds a name worth looking up: the longest IANA name is about 30 characters.
const maxZoneName = 64

// zoneAt answers opZone: "OFFSET ABBREVIATION" (the offset in seconds east of UTC) of zone at
// the instant ms, or false when there is no such zone. "Local" (the host's own zone) is no
// IANA name and is refused, as V8 refuses it.
func zoneAt(zone string, ms int64) (string, bool) {
	loc, ok := loadZone(zone)
	if !ok {
		return "", false
	}
	name, offset := time.UnixMilli(ms).In(loc).Zone()
	return strconv.Itoa(offset) + " " + name, true
}

func loadZone(zone string) (*time.Location, bool) {
	zones.Lock()
	loc, ok := zones.byName[zone]
	zones.Unlock()
	if ok {
		return loc, true
	}
	if len(zone) > maxZoneName || zone == "Local" || !zoneNameChars(zone) {
		return nil, false
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, false
	}
	zones.Lock()
	if zones.byName == nil {
		zones.byName = make(map[string]*time.Location)
	}
	if len(zones.byName) < maxZones {
		zones.byName[zone] = loc
	}
	zones.Unlock()
	return loc, true
}

// zoneNameChars reports whether name has only the characters of IANA names, so that nothing
// else reaches the file system lookup.
func zoneNameChars(name string) bool {
	for _, c := range []byte(name) {
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-' || c == '+'
		if !ok {
			return false
		}
	}
	return name[0] != '/'
}
