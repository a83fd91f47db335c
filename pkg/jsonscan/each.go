package jsonscan

// Each calls fn with the raw key (the bytes between the quotes, escapes
// left as they are) and the raw value of every member of the object data,
// in order, until fn returns false. Like Lookup it trusts data to be a
// valid object (Check it first, or take it from Members): it skips values
// without validating them, which makes it several times faster than
// Members. On invalid data it stops early but never panics.
func Each(data []byte, fn func(key, value []byte) bool) {
	if i := skipWS(data, 0); i < len(data) && data[i] == '{' {
		eachAt(data, i, fn)
	}
}

// Elements calls fn with the raw value of every element of the array data,
// in order, until fn returns false. Like Each it trusts data to be valid
// (an array inside a checked object is) and skips values without
// validating them; on invalid data it stops early but never panics.
func Elements(data []byte, fn func(value []byte) bool) {
	for i := first(data, '[', ']'); i >= 0; {
		end := skipValue(data, i)
		if end < 0 || !fn(data[i:end]) {
			return
		}
		i = next(data, end)
	}
}

// first returns where the first member or element of the object or array
// data starts (open and close are its brackets), or -1 if data is empty
// or something else.
func first(data []byte, open, close byte) int {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != open {
		return -1
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == close {
		return -1
	}
	return i
}

// next returns where the member or element after the one that ends at
// data[end] starts, or -1 if no comma follows it.
func next(data []byte, end int) int {
	i := skipWS(data, end)
	if i >= len(data) || data[i] != ',' {
		return -1
	}
	return skipWS(data, i+1)
}

// Objects walks the array data once: for each element it calls start
// with the element's first byte ('{' for an object, '"' for a string,
// and so on), then, when the element is an object, member with each of
// its members
// (the raw key, escapes left as they are, and the raw value), in order,
// until member returns false. An object's members are read in the walk
// that finds where the object ends, where Elements then Each walk each
// object twice (its values skipped twice). Like Each it trusts data to
// be valid; on invalid data it stops early but never panics.
func Objects(data []byte, start func(first byte), member func(key, value []byte) bool) {
	for i := first(data, '[', ']'); i >= 0; {
		if i >= len(data) {
			return
		}
		start(data[i])
		end := stopped
		if data[i] == '{' {
			end = eachAt(data, i, member)
		}
		if end == stopped { // not an object, or one member stopped: skipped whole
			end = skipValue(data, i)
		}
		if end < 0 {
			return
		}
		i = next(data, end)
	}
}

// stopped is what eachAt returns when fn stopped it before the
// object's end.
const stopped = -2

// eachAt calls fn with the members of the object at data[i] ('{') as
// Each does, and returns the index just past the object, -1 when the
// input ends first or is not as it should be, or stopped.
func eachAt(data []byte, i int, fn func(key, value []byte) bool) int {
	if i = skipWS(data, i+1); i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return -1
		}
		ke, _ := StringEnd(data, i+1)
		if ke < 0 {
			return -1
		}
		k := data[i+1 : ke-1]
		if i = skipWS(data, ke); i >= len(data) || data[i] != ':' {
			return -1
		}
		vs := skipWS(data, i+1)
		ve := skipValue(data, vs)
		if ve < 0 {
			return -1
		}
		if !fn(k, data[vs:ve]) {
			return stopped
		}
		if i = skipWS(data, ve); i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}
