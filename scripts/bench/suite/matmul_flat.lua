-- matmul_flat.c in Lua: 1-D arrays indexed i * N + k.
local N = 200
local a, b, c = {}, {}, {}
for i = 0, N - 1 do
  for j = 0, N - 1 do
    a[i * N + j] = (i + j) % 7
    b[i * N + j] = (i * j) % 5
  end
end
for i = 0, N - 1 do
  for j = 0, N - 1 do
    local s = 0
    for k = 0, N - 1 do
      s = s + a[i * N + k] * b[k * N + j]
    end
    c[i * N + j] = s
  end
end
local tr = 0
for i = 0, N - 1 do tr = tr + c[i * N + i] end
print(string.format("trace %d", tr))
