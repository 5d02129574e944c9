-- math library on values whose printed form is the same in both (integers,
-- short decimals); others go through string.format.
print(math.floor(3.7), math.ceil(3.2), math.floor(-3.5), math.ceil(-3.5))
print(math.abs(-4), math.max(1, 9, 3), math.min(4, -2, 8))
print(math.fmod(7, 3), math.fmod(-7, 3), 7 % 3, -7 % 3, 7 % -3)
print(math.modf(3.25))
print(math.sqrt(16), math.pow(2, 10), 2 ^ 10)
print(string.format("%.6f %.6f", math.sqrt(2), math.pi))
print(string.format("%.4f %.4f %.4f", math.sin(1), math.cos(1), math.exp(1)))
print(string.format("%.4f %.4f", math.log(10), math.log10(1000)))
print(math.huge > 1e308, -math.huge < 0)
print(5 / 2, 1 / 8)
