-- When busted runs what: a describe's body runs when the run reaches it,
-- after the tests before it; assertions take any callable.
describe("order", function()
  local runs = 0
  before_each(function() runs = runs + 1 end)
  it("runs first", function() assert.are.equal(1, runs) end)
  describe("nested", function()
    local at_body = runs
    it("sees what the tests before it did", function() assert.are.equal(1, at_body) end)
    it("gets the outer before_each", function() assert.are.equal(3, runs) end)
  end)
  it("runs after the nested block", function() assert.are.equal(4, runs) end)
end)

describe("callable tables", function()
  local boom = setmetatable({}, { __call = function() error("boom") end })
  local fine = setmetatable({}, { __call = function() end })
  it("has_error takes one", function() assert.has_error(boom) end)
  it("has_no.errors takes one", function() assert.has_no.errors(fine) end)
  it("error_matches takes one", function() assert.error_matches(boom, "boom") end)
end)
