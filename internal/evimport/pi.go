package evimport

func (c *converter) pi(f *logFile) []*session { return nil }
