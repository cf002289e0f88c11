-- Sequential matrix multiply, the same algorithm as matmul.c (n = 200).
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
  local ai, ci = a[i], c[i]
  for j = 0, N - 1 do
    local s = 0
    for k = 0, N - 1 do
      s = s + ai[k] * b[k][j]
    end
    ci[j] = s
  end
end
local tr = 0
for i = 0, N - 1 do tr = tr + c[i][i] end
print(string.format("trace %d", tr))
