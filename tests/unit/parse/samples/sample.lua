local M = {}

local MAX = 10

local function helper(x)
  return x * 2
end

function M.process(items)
  return helper(#items)
end

function M:method(a)
  return self.value + a
end

function global_fn()
  return 1
end

M.handler = function(event)
  return event
end

return M
