-- Recursion: local functions, mutual recursion through forward-declared
-- locals, deep but bounded recursion, tail calls.
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(10))
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(10), is_odd(7), is_even(3))
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(150))
local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + n) end
print(loop(10000, 0))
local function hanoi(n, from, to, via, moves)
  if n == 0 then return moves end
  moves = hanoi(n - 1, from, via, to, moves)
  moves[#moves + 1] = from .. to
  return hanoi(n - 1, via, to, from, moves)
end
local m = hanoi(4, "a", "c", "b", {})
print(#m, m[1], m[#m])
local memo = {}
local function fib(n)
  if n < 2 then return n end
  if memo[n] then return memo[n] end
  local v = fib(n - 1) + fib(n - 2)
  memo[n] = v
  return v
end
print(fib(60))
