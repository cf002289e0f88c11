-- sieve.c in Lua.
local N = 4000000
local composite = {}
for i = 0, N - 1 do composite[i] = false end
local count = 0
for i = 2, N - 1 do
  if not composite[i] then
    count = count + 1
    for j = i + i, N - 1, i do composite[j] = true end
  end
end
print(string.format("primes below %d: %d", N, count))
