-- Neovim (0.7, as Debian packages it) attaching `luaai lsp` to a script,
-- as docs/editors.md tells a modder to: started headless by TestNeovim
-- (nvim_test.go) with LUAAI_NVIM_LUA (the .nvim.lua luaai init wrote,
-- which starts `luaai lsp` from the PATH), LUAAI_SCRIPT (the script to
-- edit) and LUAAI_OUT (where to write what it got, one answer a line). It types an unknown state into a to = "…", waits for the
-- diagnostic, asks for completion inside to = " and after ctx., and jumps
-- to a state's definition.
local out = assert(io.open(os.getenv("LUAAI_OUT"), "w"))
local function say(...)
  out:write(table.concat({ ... }, " "), "\n")
  out:flush()
end

-- Every wait is for a condition; go test's -timeout bounds the whole.
local forever = 24 * 3600 * 1000

local function main()
  -- The project's .nvim.lua, as luaai init writes it, attaches the
  -- server to every Lua buffer.
  vim.cmd("luafile " .. vim.fn.fnameescape(os.getenv("LUAAI_NVIM_LUA")))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("LUAAI_SCRIPT")))
  local buf = vim.api.nvim_get_current_buf()
  local client
  vim.wait(forever, function()
    for id, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == "luaai" and c.initialized then
        client = id
        return true
      end
    end
    return false
  end, 10)
  say("attached", vim.lsp.get_client_by_id(client).name)

  -- Type a state that does not exist into the first to = "…".
  vim.fn.cursor(1, 1)
  assert(vim.fn.search('to = "alert"') > 0, 'no to = "alert"')
  vim.cmd('normal! f"')
  vim.cmd('normal! ci"alrt')
  say("typed", vim.api.nvim_get_current_line())

  vim.wait(forever, function() return #vim.diagnostic.get(buf) > 0 end, 10)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    say("diagnostic", d.lnum + 1, d.col, d.end_col, d.severity, d.message)
  end

  local function request(method, line, col)
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      position = { line = line, character = col },
    }
    local res = vim.lsp.buf_request_sync(buf, method, params, forever)
    for _, r in pairs(res or {}) do
      if r.error then
        say("error", method, r.error.message)
      end
      return r.result
    end
  end
  local function complete(pattern, offset)
    vim.fn.cursor(1, 1)
    local line = vim.fn.search(pattern)
    assert(line > 0, "no " .. pattern)
    local col = vim.fn.col(".") - 1 + offset
    local result = request("textDocument/completion", line - 1, col)
    local items = result and (result.items or result) or {}
    local labels = {}
    for _, it in ipairs(items) do
      labels[#labels + 1] = it.label .. (it.detail and (":" .. it.detail) or "")
    end
    return table.concat(labels, ",")
  end
  say("complete-to", complete('to = "alrt"', 6))
  say("complete-ctx", complete("ctx\\.alertness =", 4))

  -- Go to the definition of the state in to = "search".
  vim.fn.cursor(1, 1)
  local line = vim.fn.search('to = "search"')
  local col = vim.fn.col(".") - 1 + 7
  local result = request("textDocument/definition", line - 1, col)
  local loc = result and (result[1] or result)
  assert(loc and loc.uri, "no definition")
  vim.lsp.util.jump_to_location(loc, "utf-16")
  local pos = vim.api.nvim_win_get_cursor(0)
  say("definition", pos[1], pos[2], vim.fn.expand("<cword>"))
end

-- After start-up, when filetype detection is on (it is not yet while this
-- file runs); nested, so that opening the script runs its FileType
-- autocommands (the .nvim.lua's among them).
vim.api.nvim_create_autocmd("VimEnter", {
  nested = true,
  callback = function()
    local ok, err = pcall(main)
    if not ok then
      say("failed", tostring(err))
    end
    out:close()
    vim.cmd("qall!")
  end,
})
