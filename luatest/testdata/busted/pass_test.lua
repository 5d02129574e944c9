-- Every assertion, passing; hook order recorded and checked.
local log = {}

local function add(a, b) return a + b end

describe("assertions", function()
  it("equal", function()
    assert.are.equal(3, add(1, 2))
    assert.are_equal("a", "a")
    assert.equal(true, true)
    assert.equals(nil, nil)
    assert.are.equal(1, 1.0)
    local t = {}
    assert.are.equal(t, t)
    assert.are_not.equal({}, {})
    assert.are_not.equal("1", 1)
  end)

  it("same", function()
    assert.are.same({1, 2, {a = "x", b = {true}}}, {1, 2, {b = {true}, a = "x"}})
    assert.same({}, {})
    assert.same("s", "s")
    local cyc1, cyc2 = {}, {}
    cyc1.self, cyc2.self = cyc1, cyc2
    assert.same(cyc1, cyc2)
    assert.are_not.same({1}, {1, 2})
    assert.are_not.same({a = 1}, {a = "1"})
  end)

  it("booleans and nil", function()
    assert.is_true(true)
    assert.is_false(false)
    assert.is_nil(nil)
    assert.is_not_nil(false)
    assert.is_not_nil(0)
  end)

  it("near", function()
    assert.near(0.3, 0.1 + 0.2, 1e-9)
    assert.are.near(10, 10.4, 0.5)
    assert.near(-1, -1, 0)
  end)

  it("has_error", function()
    assert.has_error(function() error("boom") end)
    assert.has_error(function() error("bad value 42") end, "bad value %d+")
    assert.has_error(function() error("needs (parens") end, "needs (parens")
    assert.has_error(function() error("exact") end, "^exact$")
    assert.has_error(function() local x = nil; return x.y end)
    assert.has.error(function() error({code = 7}) end, {code = 7})
    assert.has_error(function() assert.is_true(false) end)
    assert.has_no.error(function() end)
  end)

  it("plain assert", function()
    local a, b = assert(1, "one")
    assert(a == 1 and b == "one")
    local ok, err = pcall(assert, false, "custom")
    assert(not ok)
    assert(tostring(err):find("custom", 1, true))
  end)

  it("messages are optional extras", function()
    assert.are.equal(1, 1, "ones")
    assert.is_true(true, "yes")
  end)
end)

describe("hooks", function()
  before_each(function() log[#log + 1] = "outer before" end)
  after_each(function() log[#log + 1] = "outer after" end)

  it("first", function() log[#log + 1] = "first" end)

  describe("inner", function()
    before_each(function() log[#log + 1] = "inner before" end)
    after_each(function() log[#log + 1] = "inner after" end)
    it("second", function() log[#log + 1] = "second" end)
  end)
end)

describe("order", function()
  it("was recorded", function()
    assert.are.same({
      "outer before", "first", "outer after",
      "outer before", "inner before", "second", "inner after", "outer after",
    }, log)
  end)
end)

-- collected before any test ran
assert.are.equal(0, #log)
