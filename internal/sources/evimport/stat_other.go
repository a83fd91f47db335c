//go:build !unix

package evimport

// statDir stats the files at the indexes of one folder, each by its path.
func statDir(files []*logFile, of []int, stats []fileStat) {
	for _, i := range of {
		stats[i] = statPath(files[i].name)
	}
}
