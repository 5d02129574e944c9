-- string.format with ordinary values (%g-style output of non-integers is
-- avoided in print, see the harness).
print(string.format("%d %5d %-5d| %05d", 42, 42, 42, 42))
print(string.format("%s %10s %-10s|", "a", "right", "left"))
print(string.format("%.2f %8.3f %.0f", 3.14159, 2.5, 2.5))
print(string.format("%x %X %o", 255, 255, 8))
print(string.format("%c%c%c", 76, 117, 97))
print(string.format("%%"), string.format("%5.1s|", "abc"))
print(string.format("%q", "next \"quoted\" \\"))
print(string.format("%e", 12345.678))
print(string.format("%g %g %g", 1, 0.5, 100000))
print(string.format("%d", 3.0))
print(string.format("[%s]", 12), string.format("%s", tostring(true)))
