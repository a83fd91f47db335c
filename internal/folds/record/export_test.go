package record

// The lengths the external tests write records past.
const (
	LongValue  = longValue
	MaxNamedID = maxNamedID
)
