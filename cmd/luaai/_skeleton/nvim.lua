-- Neovim: luaai's server beside lua-language-server for the .lua files of
-- this project. Neovim 0.9+ reads this file with `:set exrc` (it asks
-- once whether to trust it); on older versions, `:luafile .nvim.lua`.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")

local function attach(buf)
  if vim.lsp.start then -- 0.8 and later: one client per root, reused
    vim.lsp.start({ name = "luaai", cmd = { "luaai", "lsp" }, root_dir = root }, { bufnr = buf })
    return
  end
  -- 0.7: start the client once, attach each buffer
  vim.g.luaai_lsp_client = vim.g.luaai_lsp_client
    or vim.lsp.start_client({ name = "luaai", cmd = { "luaai", "lsp" }, root_dir = root })
  vim.lsp.buf_attach_client(buf, vim.g.luaai_lsp_client)
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "lua",
  callback = function(args) attach(args.buf) end,
})
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == "lua" then
    attach(buf)
  end
end
