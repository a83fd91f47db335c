package jsonscan

// Each calls fn with the raw key (the bytes between the quotes, escapes
// left as they are) and the raw value of every member of the object data,
// in order, until fn returns false. Like Lookup it trusts data to be a
// valid object (Check it first, or take it from Members): it skips values
// without validating them, which makes it several times faster than
// Members. On invalid data it stops early but never panics.
func Each(data []byte, fn func(key, value []byte) bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return
	}
	for {
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
		i = skipWS(data, ve)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i = skipWS(data, i+1)
	}
}

// Elements calls fn with the raw value of every element of the array data,
// in order, until fn returns false. Like Each it trusts data to be valid
// (an array inside a checked object is) and skips values without
// validating them; on invalid data it stops early but never panics.
func Elements(data []byte, fn func(value []byte) bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '[' {
		return
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return
	}
	for {
		end := skipValue(data, i)
		if end < 0 || !fn(data[i:end]) {
			return
		}
		i = skipWS(data, end)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i = skipWS(data, i+1)
	}
}
