package jsonscan

// Each calls fn with the raw key (the bytes between the quotes, escapes
// left as they are) and the raw value of every member of the object data,
// in order, until fn returns false. Like Lookup it trusts data to be a
// valid object (Check it first, or take it from Members): it skips values
// without validating them, which makes it several times faster than
// Members. On invalid data it stops early but never panics.
func Each(data []byte, fn func(key, value []byte) bool) {
	for i := first(data, '{', '}'); i >= 0; {
		if i >= len(data) || data[i] != '"' {
			return
		}
		ke, _ := StringEnd(data, i+1)
		if ke < 0 {
			return
		}
		k := data[i+1 : ke-1]
		i = skipWS(data, ke)
		if i >= len(data) || data[i] != ':' {
			return
		}
		vs := skipWS(data, i+1)
		ve := skipValue(data, vs)
		if ve < 0 || !fn(k, data[vs:ve]) {
			return
		}
		i = next(data, ve)
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
