package evimport

func (c *converter) codex(f *logFile) []*session { return nil }
