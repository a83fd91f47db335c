package jsonscan

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// newError turns what the scanner found into a message for a user. It runs
// only on failure, so it may allocate.
func newError(data []byte, off int, code errCode) *SyntaxError {
	switch code {
	case codeEmpty:
		return &SyntaxError{"empty line", off}
	case codeNotObject:
		return notObject(data, off)
	case codeAfterTop:
		return &SyntaxError{fmt.Sprintf("invalid character after top-level value at column %d", off+1), off}
	case codeEOF:
		return &SyntaxError{"unexpected end of input (truncated line?)", off}
	case codeDepth:
		return &SyntaxError{fmt.Sprintf("nesting deeper than %d levels", MaxDepth), off}
	}
	return invalidChar(data, off)
}

func invalidChar(data []byte, off int) *SyntaxError {
	r, size := utf8.DecodeRune(data[off:])
	switch {
	case r == '\uFEFF':
		return &SyntaxError{fmt.Sprintf("unexpected byte order mark (U+FEFF) at column %d", off+1), off}
	case r == utf8.RuneError && size <= 1:
		// Not UTF-8: show the byte, never pass it on raw.
		return &SyntaxError{fmt.Sprintf(`invalid character '\x%02x' at column %d`, data[off], off+1), off}
	}
	// QuoteRune escapes control and other non-printable characters, so the
	// message is safe to print on a terminal.
	return &SyntaxError{fmt.Sprintf("invalid character %s at column %d", strconv.QuoteRune(r), off+1), off}
}

// notObject says what the line holds instead of an object, judged by its
// first token: that is what a user needs to know, and it costs nothing to
// find out. A token that is not even valid is reported as invalid.
func notObject(data []byte, off int) *SyntaxError {
	var what string
	var end int
	code := codeOK
	switch data[off] {
	case '[':
		what = "array"
	case '"':
		what = "string"
	case 't':
		what = "boolean"
		end, code = scanLiteral(data, off, "true")
	case 'f':
		what = "boolean"
		end, code = scanLiteral(data, off, "false")
	case 'n':
		what = "null"
		end, code = scanLiteral(data, off, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		what = "number"
		end, code = scanNumber(data, off)
	default:
		return invalidChar(data, off)
	}
	if code != codeOK {
		return newError(data, end, code)
	}
	return &SyntaxError{"not a JSON object: " + what, off}
}
