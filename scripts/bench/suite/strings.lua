-- strings.c in Lua.
local total, sum = 0, 0
for i = 0, 99999 do
  local buf = string.format("%d:%d;", i, i % 977 * 31)
  local len = #buf
  total = total + len
  for k = 1, len do
    sum = (sum * 31 + string.byte(buf, k)) % 1000003
  end
end
print(string.format("length %d checksum %d", total, sum))
