-- busted's insulate and expose, its aliases and its own modules, as a
-- spec helper uses them.
local luassert = require("luassert")
local say = require("say")

describe("busted's modules", function()
  it("luassert is the assert table", function()
    assert.are.equal(assert, luassert)
    luassert.are.equal(1, 1)
  end)
  it("say formats what a helper stores", function()
    say:set_namespace("en")
    say:set("greeting", "hello %s and %s")
    assert.are.equal("hello a and b", say("greeting", { "a", "b" }))
    assert.is_nil(say("no such key"))
  end)
  it("package.path is a string a helper may extend", function()
    assert.is_string(package.path)
    package.path = package.path .. ";./?/init.lua"
    assert.is_string(package.cpath)
  end)
end)

local function is_even(state, arguments)
  return arguments[1] % 2 == 0
end
say:set("assertion.even.positive", "Expected %s to be even")
say:set("assertion.even.negative", "Expected %s to be odd")
luassert:register("assertion", "even", is_even, "assertion.even.positive", "assertion.even.negative")

describe("a registered assertion", function()
  it("holds", function() assert.is.even(2) end)
  it("negates", function() assert.is_not.even(3) end)
  it("fails with its say message", function()
    assert.has_error(function() assert.is.even(3) end)
    local ok, err = pcall(function() assert.is.even(3) end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("to be even", 1, true))
  end)
end)

leaked = "before"

insulate("an insulate block", function()
  leaked = "inside"
  made_inside = true
  local counter = require("counter")
  it("sees its own changes", function()
    assert.are.equal("inside", leaked)
    assert.is_true(made_inside)
    assert.are.equal(1, counter.bump())
  end)
end)

describe("after the insulate block", function()
  it("has the globals as they were", function()
    assert.are.equal("before", leaked)
    assert.is_nil(made_inside)
  end)
  it("loads the module afresh", function()
    assert.are.equal(1, require("counter").bump())
  end)
end)

expose("an expose block", function()
  exposed = "yes"
  it("runs its tests", function() assert.are.equal("yes", exposed) end)
end)

describe("after the expose block", function()
  it("keeps its globals", function() assert.are.equal("yes", exposed) end)
end)

describe("aliases", function()
  spec("spec is it", function() assert.is_true(true) end)
  test("test is it", function() assert.is_true(true) end)
end)
