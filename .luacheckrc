-- luacheck configuration for the shipped behaviours (CI runs `luacheck scripts`).
std = "lua51"
max_line_length = 120
files["**/*_test.lua"] = { std = "+busted" }
files["**/*_spec.lua"] = { std = "+busted" }
-- The Neovim set-up luaai init writes runs in Neovim, whose API is vim.
files["cmd/luaai/_skeleton/nvim.lua"] = { globals = { "vim" } }
