-- A module with state of its own: each load starts at zero.
local counter = { n = 0 }
function counter.bump() counter.n = counter.n + 1; return counter.n end
return counter
