-- Headless Neovim (0.7 API, Debian's build) as a real LSP client of pi-context.
--
-- usage: PI_NVIM_PLAN=/path/plan.json nvim --headless -n -i NONE -u harness.lua
--
-- The plan (JSON) names the server command, the workspace root, and a list of steps; the
-- harness runs them in order and writes one JSON report to plan.out (and to stdout). Steps (files are relative
-- to the root; strings "${uri:REL}" and "${path:REL}" in arguments are expanded):
--   {op="open", file}                          :edit the file and attach the client
--   {op="append", file, lines}                 append lines to the buffer (sends didChange)
--   {op="write_disk", file, text}              write a file behind the editor's back
--   {op="command", name, arguments}            workspace/executeCommand, result saved
--   {op="request", method, params}             any request, result saved
--   {op="wait_command", name, arguments, field, contains}
--                                              repeat the command until result.<field> (dotted)
--                                              contains text
--   {op="wait_diagnostics", file, min}         until at least `min` diagnostics were published
--   {op="wait_notification", method, contains} until a notification's JSON contains text
-- Exit code 0 when every step passed; the report says which step failed and why.

local plan_path = assert(os.getenv('PI_NVIM_PLAN'), 'PI_NVIM_PLAN not set')
local plan = vim.fn.json_decode(table.concat(vim.fn.readfile(plan_path), '\n'))
local root = plan.root
local timeout_ms = plan.timeout_ms or 20000
local t0 = vim.loop.hrtime()
local function ms() return math.floor((vim.loop.hrtime() - t0) / 1e6) end

local report = {
  ok = false, nvim = vim.version(), steps = {}, diagnostics = {}, notifications = {},
  log_messages = {}, failed_step = vim.NIL, error = vim.NIL,
}

local function abs(rel) return root .. '/' .. rel end

local function expand(value)
  if type(value) == 'string' then
    local kind, rel = value:match('^%${(%a+):(.+)}$')
    if kind == 'uri' then return vim.uri_from_fname(abs(rel)) end
    if kind == 'path' then return abs(rel) end
    return value
  elseif type(value) == 'table' then
    local out = {}
    for k, v in pairs(value) do out[k] = expand(v) end
    if next(value) == nil and getmetatable(value) == getmetatable(vim.empty_dict()) then return vim.empty_dict() end
    return out
  end
  return value
end

local function record(method)
  return function(err, result, ctx, config)
    report.notifications[method] = report.notifications[method] or {}
    table.insert(report.notifications[method], result)
  end
end

local handlers = {
  ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    report.diagnostics[result.uri] = result.diagnostics
    return vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
  end,
  ['window/logMessage'] = function(err, result, ctx, config)
    table.insert(report.log_messages, result)
  end,
}
for _, method in ipairs(plan.record or {}) do handlers[method] = record(method) end

local client_id = vim.lsp.start_client({
  name = 'pi-context',
  cmd = plan.cmd,
  root_dir = root,
  init_options = plan.init_options,
  settings = plan.settings,
  handlers = handlers,
  -- Neovim 0.7 sends no settings by itself; its docs say to push them from on_init.
  on_init = function(c)
    if next(plan.settings or {}) then c.notify('workspace/didChangeConfiguration', { settings = plan.settings }) end
  end,
})
assert(client_id, 'start_client failed')

local function client() return vim.lsp.get_client_by_id(client_id) end

local function wait_initialized()
  return vim.wait(timeout_ms, function()
    local c = client()
    return c ~= nil and c.initialized == true
  end, 20)
end

local buffers = {}

local function request(method, params)
  local c = client()
  if not c then error('client is gone') end
  local bufnr = next(buffers) and buffers[next(buffers)] or 0
  local resp, err = c.request_sync(method, params, timeout_ms, bufnr)
  if resp == nil then error('no answer to ' .. method .. ': ' .. tostring(err)) end
  if resp.err then error(method .. ' failed: ' .. vim.fn.json_encode(resp.err)) end
  return resp.result
end

local ops = {}

function ops.open(step)
  vim.cmd('edit ' .. vim.fn.fnameescape(abs(step.file)))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  buffers[step.file] = bufnr
  return { bufnr = bufnr }
end

function ops.append(step)
  local bufnr = assert(buffers[step.file], step.file .. ' is not open')
  vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, step.lines)
  return { lines = vim.api.nvim_buf_line_count(bufnr) }
end

function ops.write_disk(step)
  local path = abs(step.file)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  local f = assert(io.open(path, 'w'))
  f:write(step.text)
  f:close()
  return { path = path }
end

function ops.command(step)
  return request('workspace/executeCommand', { command = step.name, arguments = expand(step.arguments) })
end

function ops.request(step)
  return request(step.method, expand(step.params))
end

function ops.wait_command(step)
  local deadline = ms() + timeout_ms
  local result
  repeat
    result = ops.command(step)
    local value = result
    for key in step.field:gmatch('[^.]+') do value = type(value) == 'table' and value[key] or nil end
    if type(value) == 'string' and value:find(step.contains, 1, true) then return result end
    vim.wait(50)
  until ms() > deadline
  error('timed out; last result: ' .. vim.fn.json_encode(result))
end

function ops.wait_diagnostics(step)
  local uri = vim.uri_from_fname(abs(step.file))
  local min = step.min or 1
  local ok = vim.wait(timeout_ms, function() return #(report.diagnostics[uri] or {}) >= min end, 20)
  if not ok then error('no ' .. min .. ' diagnostic(s) for ' .. uri) end
  return report.diagnostics[uri]
end

function ops.wait_notification(step)
  local found
  local ok = vim.wait(timeout_ms, function()
    for _, params in ipairs(report.notifications[step.method] or {}) do
      local text = vim.fn.json_encode(params)
      if text:find(step.contains, 1, true) then
        found = params
        return true
      end
    end
    return false
  end, 20)
  if not ok then error('no ' .. step.method .. ' containing ' .. step.contains) end
  return found
end

local function run()
  if not wait_initialized() then error('server did not initialize') end
  report.initialized_ms = ms()
  for index, step in ipairs(plan.steps) do
    local entry = { op = step.op, name = step.name or step.method or step.file }
    table.insert(report.steps, entry)
    local ok, result = pcall(ops[step.op] or function() error('unknown op ' .. step.op) end, step)
    entry.ms = ms()
    if not ok then
      report.failed_step = index
      report.error = tostring(result)
      return false
    end
    entry.result = result == nil and vim.NIL or result
  end
  return true
end

local ok, passed = pcall(run)
report.ok = ok and passed
if not ok then report.error = tostring(passed) end
report.total_ms = ms()

local encoded = vim.fn.json_encode(report)
local out = assert(io.open(plan.out, 'w'))
out:write(encoded)
out:close()
io.stdout:write(encoded .. '\n')

local c = client()
if c then c.stop() end
vim.wait(2000, function() return client() == nil end, 20)
vim.cmd(report.ok and 'qall!' or 'cquit 1')
