-- spectralnorm.c in Lua.
local N = 300
local u, v, t = {}, {}, {}
local function A(i, j)
  return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)
end
local function mul_av(x, y)
  for i = 0, N - 1 do
    local s = 0.0
    for j = 0, N - 1 do s = s + A(i, j) * x[j] end
    y[i] = s
  end
end
local function mul_atv(x, y)
  for i = 0, N - 1 do
    local s = 0.0
    for j = 0, N - 1 do s = s + A(j, i) * x[j] end
    y[i] = s
  end
end
for i = 0, N - 1 do u[i] = 1.0 end
for _ = 1, 10 do
  mul_av(u, t); mul_atv(t, v); mul_av(v, t); mul_atv(t, u)
end
local vbv, vv = 0.0, 0.0
for i = 0, N - 1 do
  vbv = vbv + u[i] * v[i]
  vv = vv + v[i] * v[i]
end
print(string.format("%.9f", math.sqrt(vbv / vv)))
