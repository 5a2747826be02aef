-- A real Neovim (0.7+) as the LSP client: start the server, wait for its index, ask it, write the answers as JSON.
-- Arguments come from the environment: MAGUYVA_PYTHON, MAGUYVA_ROOT, MAGUYVA_INDEX_DIR, MAGUYVA_OUT.
local python = os.getenv("MAGUYVA_PYTHON")
local root = os.getenv("MAGUYVA_ROOT")
local out_path = os.getenv("MAGUYVA_OUT")
local answers = {}

local function finish(ok, message)
  answers.ok = ok
  answers.message = message
  local handle = io.open(out_path, "w")
  handle:write(vim.fn.json_encode(answers))
  handle:close()
  vim.cmd(ok and "qa!" or "cq!")
end

local client_id = vim.lsp.start_client({
  name = "maguyva",
  cmd = { python, "-m", "maguyva_lsp", "--stdio" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
  init_options = { indexDir = os.getenv("MAGUYVA_INDEX_DIR") },
})
if not client_id then
  finish(false, "start_client failed")
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(30000, function() return client.initialized end, 50) then
  finish(false, "the server did not initialise")
end

local function ask(method, params, bufnr)
  local response, err = client.request_sync(method, params, 30000, bufnr or 0)
  if err or not response then
    finish(false, method .. " failed: " .. tostring(err))
  end
  if response.err then
    return { error = response.err.message }
  end
  return response.result
end

local indexed = vim.wait(60000, function()
  local status = ask("maguyva/status", {})
  answers.status = status
  return status and not status.indexing and status.files > 0
end, 200)
if not indexed then
  finish(false, "indexing did not finish")
end

answers.search = ask("maguyva/search", { query = "where is parse_config defined" })
answers.symbols = ask("workspace/symbol", { query = "load_conf" })
answers.bad = ask("maguyva/search", { query = "" })

vim.cmd("edit " .. root .. "/app/server.py")
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)
answers.definition = ask("textDocument/definition", {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = 5, character = 24 },
}, bufnr)

client.stop()
vim.wait(5000, function() return client.is_stopped() end, 50)
finish(true, "done")
