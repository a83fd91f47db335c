package cursor

// appendRenumbered is WriteRenumbered into a byte slice.
func appendRenumbered(dst []byte, e *Event, seq []byte) []byte {
	b := appendWriter{dst}
	WriteRenumbered(&b, e, seq)
	return b.b
}

type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
