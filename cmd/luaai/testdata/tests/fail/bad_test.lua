describe("bad", function()
  it("passes", function() assert.are.equal(1, 1) end)
  it("fails", function() assert.are.equal("combat", "patrol") end)
end)
