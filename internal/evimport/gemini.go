package evimport

func (c *converter) gemini(f *logFile) []*session { return nil }
