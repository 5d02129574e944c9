describe("guard", function()
  describe("hfsm", function()
    it("switches to combat", function()
      assert.are.equal("combat", "patrol")
    end)
  end)

  it("same", function()
    assert.are.same({a = 1, b = {c = 2}}, {a = 1, b = {c = 3}})
  end)

  it("is_true", function()
    assert.is_true(nil)
  end)

  it("is_false", function()
    assert.is_false(true)
  end)

  it("is_nil", function()
    assert.is_nil(42)
  end)

  it("is_not_nil", function()
    assert.is_not_nil(nil)
  end)

  it("near", function()
    assert.near(1, 1.5, 0.1)
  end)

  it("has_error", function()
    assert.has_error(function() end)
  end)

  it("has_error pattern", function()
    assert.has_error(function() error("out of range") end, "^missing")
  end)

  it("not equal", function()
    assert.are_not.equal(5, 5)
  end)

  it("not same", function()
    assert.are_not.same({1, 2}, {1, 2})
  end)

  it("plain assert", function()
    assert(false, "plain message")
  end)

  it("runtime error", function()
    local t = nil
    local x = t.field
  end)

  it("error call", function()
    error("kaboom")
  end)

  it("passes", function()
    assert.are.equal(1, 1)
  end)
end)
