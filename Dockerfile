FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci
COPY . .
RUN npm run build
ENV HOST=0.0.0.0 PORT=8000 LARDER_DATA_DIR=/data
EXPOSE 8000
CMD ["node", "-r", "./tools/paths.js", "dist/apps/api/src/main.js"]
