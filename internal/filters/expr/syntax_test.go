package expr

import (
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// eachPart reaches every query in the tree, in order, and says what each
// is evaluated on: here each call is listed with the input of the nearest
// part above it that is not evaluated on its parent's input.
func TestEachPart(t *testing.T) {
	names := map[input]string{inputSame: "same", inputArg: "arg", inputOther: "other"}
	for _, tc := range []struct{ expr, want string }{
		{`def d(a): f1; f2`, `f1:other f2:same`},
		{`f1 | f2`, `f1:same f2:other`},
		{`f1 as [$x, {(f2): $y, "s\(f3)": $z}] | f4`, `f1:same f4:same f2:same f3:same`},
		{`f1 |= f2, f3 += f4, f5 = f6`, `f1:same f2:other f3:same f4:other f5:same f6:same`},
		{`.[f1:f2][f3]."\(f4)"`, `f1:same f2:same f3:same f4:same`},
		{`{"k\(f1)": f2, (f3): f4}`, `f1:same f2:same f3:same f4:same`},
		{`[f1], -f2, "\(f3)", @base64 "\(f4)", (f5)`, `f1:same f2:same f3:same f4:same f5:same`},
		{`if f1 then f2 elif f3 then f4 else f5 end`, `f1:same f2:same f3:same f4:same f5:same`},
		{`try f1 catch f2`, `f1:same f2:other`},
		{`reduce f1 as {(f2): $r} (f3; f4)`, `f1:same f2:same f3:same f4:other`},
		{`foreach f1 as $r (f2; f3; f4)`, `f1:same f2:same f3:other f4:other`},
		{`label $out | f1`, `f1:same`},
		{`f1(f2; f3)[f4]`, `f1:same f2:arg f3:arg f4:same`},
	} {
		q, err := gojq.Parse(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		var got []string
		var walk func(p part, in input)
		walk = func(p part, in input) {
			if t, ok := p.(*gojq.Term); ok && t.Type == gojq.TermTypeFunc && strings.HasPrefix(t.Func.Name, "f") {
				got = append(got, t.Func.Name+":"+names[in])
			}
			eachPart(p, func(c part, cin input) {
				if cin == inputSame {
					cin = in
				}
				walk(c, cin)
			})
		}
		walk(q, inputSame)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.expr, g, tc.want)
		}
	}
}
