-- What a careless or hostile test does to the runner; each passes.
describe("hostile", function()
  it("passes cyclic tables to a spy", function()
    local t = {}; t.self = t
    local s = spy.new(function() end)
    s(t)
    local u = {}; u.self = u
    assert.spy(s).was.called_with(u)
  end)
  it("calls a spy past what it records", function()
    local s = spy.new(function() end)
    for i = 1, 20000 do s(i) end
    assert.spy(s).was.called(20000)
    assert.equals(10000, #s.calls)
  end)
  it("reads a very long key (linear in its words)", function()
    assert[string.rep("is_", 100000) .. "true"](true)
    assert[string.rep("not_", 100001) .. "nil"](1)
  end)
  it("recurses through a spy", function()
    local s
    s = spy.new(function() return s() end)
    assert.has_error(function() s() end, "stack overflow")
  end)
end)
