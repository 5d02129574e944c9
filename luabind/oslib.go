package luabind

// os.time and os.date, reading Options.Now so runs replay.

import (
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// osTimeTable implements os.time{year=…} deterministically from its argument.
func osTimeTable(L *lua.LState) int {
	t := L.CheckTable(1)
	get := func(k string, def int) int {
		if v, ok := t.RawGetString(k).(lua.LNumber); ok {
			return int(v)
		}
		return def
	}
	tm := time.Date(get("year", 1970), time.Month(get("month", 1)), get("day", 1), get("hour", 12), get("min", 0), get("sec", 0), 0, time.Local)
	L.Push(lua.LNumber(tm.Unix()))
	return 1
}

// osDate is os.date; its result is capped like any string, and a long
// format checks the budget as it goes.
func (vm *VM) osDate(L *lua.LState, now time.Time) int {
	format := L.OptString(1, "%c")
	if L.GetTop() >= 2 {
		now = time.Unix(int64(L.CheckNumber(2)), 0)
	}
	if strings.HasPrefix(format, "!") {
		now = now.UTC()
		format = format[1:]
	}
	if strings.HasPrefix(format, "*t") {
		t := L.NewTable()
		t.RawSetString("year", lua.LNumber(now.Year()))
		t.RawSetString("month", lua.LNumber(now.Month()))
		t.RawSetString("day", lua.LNumber(now.Day()))
		t.RawSetString("hour", lua.LNumber(now.Hour()))
		t.RawSetString("min", lua.LNumber(now.Minute()))
		t.RawSetString("sec", lua.LNumber(now.Second()))
		t.RawSetString("wday", lua.LNumber(now.Weekday()+1))
		t.RawSetString("yday", lua.LNumber(now.YearDay()))
		t.RawSetString("isdst", lua.LFalse)
		L.Push(t)
		return 1
	}
	// At most 24 bytes a conversion (%c): refuse a result over the cap
	// before building any of it.
	if size := float64(len(format)) + 24*float64(strings.Count(format, "%")); size > float64(vm.guard.maxString) {
		vm.tooLong(L, "os.date", size)
	}
	var b strings.Builder
	for i, n := 0, 0; i < len(format); i, n = i+1, n+1 {
		if n&1023 == 1023 {
			vm.checkBudget(L)
		}
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			fmt.Fprintf(&b, "%d", now.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", now.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(now.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", now.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", now.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", now.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", now.Second())
		case 'c':
			b.WriteString(now.Format("Mon Jan  2 15:04:05 2006"))
		case 'x':
			b.WriteString(now.Format("01/02/06"))
		case 'X':
			b.WriteString(now.Format("15:04:05"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}
