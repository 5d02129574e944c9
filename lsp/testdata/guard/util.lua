-- A module the guard requires.
local M = {}
function M.bump(x) return x + 1 end
return M
