describe("body", function()
  it("never runs", function() end)
  local cfg = nil
  local n = cfg.count
end)
