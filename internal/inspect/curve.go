package inspect

import (
	"fmt"
	"io"
	"strings"

	"github.com/luaai/luaai/luabind/defs"
)

// PlotCurve draws a response curve in text: width columns for x from 0 to
// 1, height rows for the score from 1 (top) to 0, the axes labelled.
func PlotCurve(w io.Writer, c defs.Curve, width, height int) error {
	width, height = max(width, 11), max(height, 3)
	rows := make([][]byte, height)
	for r := range rows {
		rows[r] = []byte(strings.Repeat(" ", width))
	}
	for col := 0; col < width; col++ {
		x := float64(col) / float64(width-1)
		y := c.Eval(x)
		r := height - 1 - int(y*float64(height-1)+0.5)
		rows[r][col] = '*'
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", c)
	b.WriteString("score\n")
	for r, row := range rows {
		label := "    "
		switch r {
		case 0:
			label = "1.0 "
		case (height - 1) / 2:
			label = "0.5 "
		case height - 1:
			label = "0.0 "
		}
		fmt.Fprintf(&b, "%s|%s\n", label, strings.TrimRight(string(row), " "))
	}
	fmt.Fprintf(&b, "    +%s\n", strings.Repeat("-", width))
	fmt.Fprintf(&b, "     0%s1  input\n", strings.Repeat(" ", width-2))
	_, err := io.WriteString(w, b.String())
	return err
}

// CurveSVG draws a response curve as an SVG image (x and the score from 0
// to 1, 200 samples), with its description as the title.
func CurveSVG(w io.Writer, c defs.Curve) error {
	const size, pad = 300.0, 30.0
	var pts strings.Builder
	for i := 0; i <= 200; i++ {
		x := float64(i) / 200
		fmt.Fprintf(&pts, "%.2f,%.2f ", pad+x*size, pad+(1-c.Eval(x))*size)
	}
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g">
<title>%s</title>
<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>
<text x="%g" y="%g" font-family="sans-serif" font-size="12">%s</text>
<polyline points="%s" fill="none" stroke="#c33" stroke-width="2"/>
</svg>
`, size+2*pad, size+2*pad, size+2*pad, size+2*pad, escapeXML(c.String()),
		pad, pad, size, size, pad, pad-10, escapeXML(c.String()), strings.TrimSpace(pts.String()))
	return err
}

func escapeXML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// CurveKinds lists the kinds of response curve NewCurve takes.
func CurveKinds() []string { return defs.CurveKinds() }

// NewCurve is defs.NewCurve: the curve ai.curve(x, {kind = kind, m = m,
// k = k, b = b, c = c}) builds, for PlotCurve and CurveSVG.
func NewCurve(kind string, m, k, b, c float64) (defs.Curve, error) {
	return defs.NewCurve(kind, m, k, b, c)
}
