-- Multiple assignments whose values come from yields.
local co = coroutine.wrap(function(a, b)
  for _ = 1, 3 do
    a, b = b, coroutine.yield(a, b)
  end
  return a, b
end)
print(co(1, 2))
print(co(3))
print(co(4))
print(co(5))
local state = {x = 0, y = 0}
local mover = coroutine.wrap(function()
  while true do
    state.x, state.y = state.y, coroutine.yield(state.x + state.y)
  end
end)
print(mover(), mover(1), mover(2), mover(3))
print(state.x, state.y)
local pinger = coroutine.create(function(n)
  local last, count = nil, 0
  while n do
    last, count, n = n, count + 1, coroutine.yield(count)
  end
  return last, count
end)
print(coroutine.resume(pinger, "a"))
print(coroutine.resume(pinger, "b"))
print(coroutine.resume(pinger, nil))
