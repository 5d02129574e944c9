describe("x", function()
  it("y", function()
    local = 1
  end)
end)
