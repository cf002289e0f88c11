-- matmul_while.c in Lua: while loops.
local N = 200
local a, b, c = {}, {}, {}
for i = 0, N - 1 do
  a[i], b[i], c[i] = {}, {}, {}
  for j = 0, N - 1 do
    a[i][j] = (i + j) % 7
    b[i][j] = (i * j) % 5
  end
end
local i = 0
while i < N do
  local j = 0
  while j < N do
    local s = 0
    local k = 0
    while k < N do
      s = s + a[i][k] * b[k][j]
      k = k + 1
    end
    c[i][j] = s
    j = j + 1
  end
  i = i + 1
end
local tr = 0
for i = 0, N - 1 do tr = tr + c[i][i] end
print(string.format("trace %d", tr))
