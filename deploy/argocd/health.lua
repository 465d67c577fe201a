-- Argo CD health of every harborconfig.io resource, read from the status the operator writes:
--   paused (harborconfig.io/paused: "true", or Ready reason Paused) -> Suspended, whatever the
--     generation: a change made while paused waits for the unpause, which the message says
--   no status yet, or a status of an older generation     -> Progressing
--   Stalled=True (an error no retry can fix)                -> Degraded, with its message
--   Ready=True                                              -> Healthy
--   anything else (Ready=False or Unknown)                  -> Progressing, with reason and message
-- Runs (HarborGarbageCollectionRun, HarborReplicationRun) need nothing more: their status says
-- Ready=True once Succeeded, Stalled=True once Failed, Stopped or Skipped, Ready=False (reason
-- Running, or what it waits for) before: Healthy, Degraded, Progressing.
-- Argo CD runs this with gopher-lua (Lua 5.1) and only the base and table libraries: no string.*.

local function condition(status, kind)
  if status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

local function describe(c)
  local reason = c.reason or ""
  local message = c.message or ""
  if reason ~= "" and message ~= "" then
    return reason .. ": " .. message
  end
  if message ~= "" then
    return message
  end
  return reason
end

local hs = {}
local status = obj.status
local generation = obj.metadata.generation

-- Paused on purpose: the operator leaves the resource as it is, and keeps in its status the
-- generation it last applied, so a change made since would otherwise read as work in progress.
local annotations = obj.metadata.annotations
local paused = annotations ~= nil and annotations["harborconfig.io/paused"] == "true"
local ready = nil
if status ~= nil then
  ready = condition(status, "Ready")
end
if paused or (ready ~= nil and ready.reason == "Paused") then
  hs.status = "Suspended"
  if status ~= nil and status.observedGeneration ~= nil and generation ~= nil and
      status.observedGeneration ~= generation then
    hs.message = "Paused by the harborconfig.io/paused annotation: generation " .. generation ..
      " waits for the unpause (the status describes generation " .. status.observedGeneration .. ")"
  elseif ready ~= nil and ready.reason == "Paused" then
    hs.message = describe(ready)
  else
    hs.message = "Paused by the harborconfig.io/paused annotation"
  end
  return hs
end

if status == nil or status.observedGeneration == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to report a status"
  return hs
end

-- A status written before the latest change of the spec says nothing about that change.
if generation ~= nil and status.observedGeneration ~= generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to act on generation " .. generation ..
    " (the status describes generation " .. status.observedGeneration .. ")"
  return hs
end

local stalled = condition(status, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
  return hs
end

if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Ready condition"
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready)
  return hs
end
hs.status = "Progressing"
hs.message = describe(ready)
return hs
