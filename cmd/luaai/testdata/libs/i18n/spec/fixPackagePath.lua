package.path = package.path .. ';./?/init.lua'
