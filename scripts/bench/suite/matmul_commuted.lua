-- matmul_commuted.c in Lua: the sum commuted.
local N = 200
local a, b, c = {}, {}, {}
for i = 0, N - 1 do
  a[i], b[i], c[i] = {}, {}, {}
  for j = 0, N - 1 do
    a[i][j] = (i + j) % 7
    b[i][j] = (i * j) % 5
  end
end
for i = 0, N - 1 do
  for j = 0, N - 1 do
    local s = 0
    for k = 0, N - 1 do
      s = a[i][k] * b[k][j] + s
    end
    c[i][j] = s
  end
end
local tr = 0
for i = 0, N - 1 do tr = tr + c[i][i] end
print(string.format("trace %d", tr))
